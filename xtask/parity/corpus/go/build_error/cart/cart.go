package cart

import "example.com/shop/price"

func Total(items []int) int {
	t := 0
	for _, c := range items {
		t += price.WithTax(c)
	}
	return t
}
