package bench

// A Slot is one process run: a target under a variant in a round.
type Slot struct {
	Round, Target, Variant int
}

// Schedule interleaves variants round by round: every round runs every
// target under every variant, and the order of the variants rotates with
// both the round and the target, so that no variant is systematically
// first (or runs right after a particular other one) when the machine
// drifts. It returns rounds*targets*variants slots.
func Schedule(rounds, targets, variants int) []Slot {
	var s []Slot
	for r := 0; r < rounds; r++ {
		for t := 0; t < targets; t++ {
			for i := 0; i < variants; i++ {
				s = append(s, Slot{Round: r, Target: t, Variant: (i + r + t) % variants})
			}
		}
	}
	return s
}
