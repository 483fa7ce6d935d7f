// Module peers holds the servers gust is compared against. It is a module of
// its own so that the main module never depends on them.
//
// fasthttp v1.74.0 is pinned: the module proxy available to this project
// refuses a dependency of v1.75+. nbio v1.6.12 is pinned: the proxy refuses
// v1.6.13 and later.
module github.com/gust-http/gust/peers

go 1.26.8

require (
	github.com/coder/websocket v1.8.15
	github.com/go-chi/chi/v5 v5.5.0
	github.com/gobwas/ws v1.5.0
	github.com/gorilla/mux v1.8.1
	github.com/gorilla/websocket v1.5.3
	github.com/lesismal/llib v1.2.4
	github.com/lesismal/nbio v1.6.12
	github.com/quic-go/quic-go v0.65.0
	github.com/valyala/fasthttp v1.74.0
	golang.org/x/sys v0.49.0
	google.golang.org/grpc v1.85.0
)

require (
	cloud.google.com/go/compute/metadata v0.9.0 // indirect
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	github.com/andybalholm/brotli v1.3.0 // indirect
	github.com/bufbuild/protocompile v0.14.1 // indirect
	github.com/cncf/xds/go v0.0.0-20260202195803-dba9d589def2 // indirect
	github.com/envoyproxy/protoc-gen-validate v1.3.3 // indirect
	github.com/gobwas/httphead v0.1.0 // indirect
	github.com/quic-go/qpack v0.6.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/oauth2 v0.36.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

require (
	github.com/gust-http/gust v0.0.0
	github.com/klauspost/compress v1.20.4
	github.com/molecule-man/go-brrr v1.0.1 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
)

replace github.com/gust-http/gust => ../
