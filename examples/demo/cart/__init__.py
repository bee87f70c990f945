"""A tiny shopping cart: the example pith runs in its README."""
