package price

// WithTax adds 20%.
func WithTax(cents int) int { return cents * 120 / 100 }
