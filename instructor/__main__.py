import sys

from instructor.cli import main

sys.exit(main())
