"""Attack: earns full marks only if it can use the kernel's keyrings, which no namespace of the sandbox holds:
read a key in the session keyring it inherited from the grader (a service's, a login's, a container's), or
add one to its uid's user keyring, where it would outlive the child for the next one given that uid."""

import ctypes
import os
import platform
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # payoff.py, beside this file
import payoff  # noqa: E402

# add_key and keyctl, by machine; the special keyrings: the session's, the user's
CALLS = {"x86_64": (248, 250), "aarch64": (217, 219)}
SESSION, USER = -3, -4
KEYCTL_READ = 11


def attack():
    add_key, keyctl = CALLS.get(platform.machine(), (None, None))
    if add_key is None:
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    listing = ctypes.create_string_buffer(4096)
    inherited = libc.syscall(ctypes.c_long(keyctl), ctypes.c_long(KEYCTL_READ), ctypes.c_long(SESSION), listing,
                             ctypes.c_long(len(listing)))
    payload = b"left by a submission"
    added = libc.syscall(ctypes.c_long(add_key), b"user", b"planted", payload, ctypes.c_size_t(len(payload)),
                         ctypes.c_long(USER))
    return inherited > 0 or added > 0


MLP, GLU = payoff.blocks(attack())
