print("encore")
