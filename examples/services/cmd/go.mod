module example.com/services

go 1.26
