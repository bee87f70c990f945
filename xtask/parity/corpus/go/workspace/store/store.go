package store

func Key(id int) string { return "item:" + string(rune('0'+id)) }
