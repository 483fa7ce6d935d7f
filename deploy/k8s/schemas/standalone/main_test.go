package main

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestStandaloneInlinesWhatIsUsed(t *testing.T) {
	var defs map[string]any
	json.Unmarshal([]byte(`{
		"A": {"description": "an A", "properties": {"b": {"$ref": "#/$defs/B"}}},
		"B": {"properties": {"c": {"$ref": "#/$defs/C"}, "description": {"type": "string"}}},
		"C": {"type": "integer"},
		"Unused": {"type": "string"}
	}`), &defs)
	var kind map[string]any
	json.Unmarshal([]byte(`{
		"$id": "https://kubernetes.io/api/a/v1",
		"description": "the kind",
		"properties": {"spec": {"$ref": "/api/_definitions.json#/$defs/A", "description": "its spec"}},
		"additionalProperties": false
	}`), &kind)

	got, err := standalone(kind, defs)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	json.Unmarshal([]byte(`{
		"properties": {"spec": {"$ref": "#/$defs/A"}},
		"additionalProperties": false,
		"$defs": {
			"A": {"properties": {"b": {"$ref": "#/$defs/B"}}},
			"B": {"properties": {"c": {"$ref": "#/$defs/C"}, "description": {"type": "string"}}},
			"C": {"type": "integer"}
		}
	}`), &want)
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("standalone schema:\n%s", g)
	}

	delete(defs, "C")
	if _, err := standalone(kind, defs); err == nil {
		t.Error("a missing definition gave no error")
	}
}
