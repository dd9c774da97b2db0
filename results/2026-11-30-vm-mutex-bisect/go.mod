module schedlab.local/mx

go 1.26.0

require google.golang.org/grpc v1.85.0 // indirect
