"""Page modules of the reference site; see :mod:`derive.site`."""
