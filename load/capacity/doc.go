// Package capacity finds the highest request rate a target sustains under
// a service level objective (gust load --find-max): open-model steps at
// rising rates, then a bisection between the last rate that met the
// objective and the first that did not. It runs steps through a function
// it is given, so that it knows no engine and is tested with a fake.
//
// # Files
//
//   - capacity.go: Search: rates doubled, then bisected, within a time budget, through a StepFunc
package capacity
