"""A student's Triton kernels as the suites see them, apart from running them.

``source`` reads an exercise file's kernels and assembles them with trusted launch code, from parsed
trees only; ``language`` is what a kernel body may use (checked before anything runs); ``writing``
writes the assembled file; ``maps`` draws what a kernel loaded and stored, for a failing test, and
``pictures`` paints it as a PNG. Used by
the suites, the notebooks and the student release; the child never imports it (it runs the
assembled file like any other).
"""
