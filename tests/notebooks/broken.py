# %%
x = 1


# %%
def check(value):
    if value < 2:
        raise ValueError(f"value too small: {value}")


check(x)
