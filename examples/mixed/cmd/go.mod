module example.com/mixed

go 1.26
