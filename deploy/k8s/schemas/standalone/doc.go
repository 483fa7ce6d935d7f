// Command standalone turns Kubernetes JSON schemas that refer to a shared
// definitions file (the "local" schemas of the kubernetes-validate package
// on PyPI) into schemas that stand alone, for kubeconform, which reads one
// file per kind and fetches nothing here:
//
//	go run ./deploy/k8s/schemas/standalone SRC_DIR DST_DIR job-batch-v1 configmap-v1 ...
//
// SRC_DIR holds _definitions.json and one file per kind; each kind named is
// written to DST_DIR with the definitions it uses (and theirs) under its
// own $defs, references made local, descriptions dropped (they are most of
// the size and validate nothing) and $id dropped (nothing is fetched).
//
// # Files
//
//   - main.go: schemas with shared definitions made into one self-contained schema per kind
package main
