NAME = "base"
