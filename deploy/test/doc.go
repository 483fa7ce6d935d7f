// Package deploytest runs what deploy/ describes for real, short of a
// Kubernetes cluster, and checks it: the image of deploy/Dockerfile built
// and run by podman with the Deployment's and the Job's security settings,
// the Indexed Job imitated by agent containers on a podman network, and a
// server and four agents on separate hosts made of network namespaces,
// once with every agent completing and once with an agent's link cut.
//
// The tests make images, containers, a podman network and network
// namespaces, so they run only as root and when asked to
// (GUST_DEPLOY_TEST=1); deploy/test/run.sh sets that, cleans up whatever
// they leave even when they fail, and is what .ci/run runs. Every name they
// make starts with "gustdt", and podman objects carry the label
// gust.deploy-test=1. Traffic stays on networks the tests made: the podman
// network 10.213.17.0/24 and the bridge 10.213.16.0/24 that exists only in
// a network namespace of its own.
//
// # Files
//
//   - doc.go: this comment and the package clause; the tests are the package
package deploytest
