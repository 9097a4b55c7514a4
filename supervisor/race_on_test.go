//go:build race

package supervisor

// raceEnabled scales down tests that push a lot of bytes: the race
// detector makes every byte an order of magnitude dearer.
const raceEnabled = true
