module example.com/words

go 1.22
