package leak

var Open = 0
