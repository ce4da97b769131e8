"""accounts: the user accounts the tests need, in one place for every
Python test of the tree (tests/cli, tests/python).  unused_uid() is a uid
no account has: a file chowned to it belongs, to the kernel and to
recorder, to another user, without adding one to /etc/passwd.
"""
import pwd


def unused_uid():
    for uid in range(54321, 60000):
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
    return None
