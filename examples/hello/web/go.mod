module example.com/hello/web

go 1.26
