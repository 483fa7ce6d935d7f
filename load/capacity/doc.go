// Package capacity finds the highest request rate a target sustains under
// a service level objective (gust load --find-max): open-model steps at
// rising rates, then a bisection between the last rate that met the
// objective and the first that did not. Near the knee one step's p99 is
// noisy, so a rate is judged by all its runs, and the two rates the search
// ends between are run again until their runs agree (Config.Rechecks). It
// runs steps through a function it is given, so that it knows no engine
// and is tested with a fake (noisy_test.go simulates a noisy knee).
//
// # Files
//
//   - capacity.go: Search: rates doubled, bisected, the final bounds settled, within a time budget
package capacity
