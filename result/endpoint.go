package result

import "github.com/HdrHistogram/hdrhistogram-go"

// Endpoint is what a run measured for one endpoint of its Source (with
// gust replay, a method and path template such as "GET /users/:id").
type Endpoint struct {
	// Name is the endpoint's name, such as "GET /users/:id".
	Name string
	// Requests counts complete responses.
	Requests int64
	// Errors counts failed requests, of every ErrorKind.
	Errors int64
	// Status5xx counts responses with a status of 500 or more.
	Status5xx int64
	// Latency holds one value per response, in microseconds, from
	// NewEndpointHistogram.
	Latency *hdrhistogram.Histogram
}

// EndpointSigFigs is the precision of endpoint histograms: 2 significant
// digits (1%) rather than the run's 3 keeps a run with a thousand
// endpoints on two loops to tens of megabytes.
const EndpointSigFigs = 2

// NewEndpointHistogram returns an empty endpoint latency histogram in
// microseconds: HistMin to HistMax with EndpointSigFigs digits.
func NewEndpointHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistMin, HistMax, EndpointSigFigs)
}
