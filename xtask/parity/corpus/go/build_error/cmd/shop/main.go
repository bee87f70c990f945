package main

import (
	"fmt"

	"example.com/shop/cart"
)

func main() { fmt.Println(cart.Total([]int{100})) }
