package bench

import (
	"fmt"
	"strings"
)

// ParseKnobSweep parses "knob=v1,v2,v3" into the knob and its values.
func ParseKnobSweep(s string) (knob string, values []string, err error) {
	knob, list, ok := strings.Cut(s, "=")
	if !ok || knob == "" || list == "" {
		return "", nil, fmt.Errorf("-knob %q: want knob=value1,value2,...", s)
	}
	if !KnownKnob(knob) {
		return "", nil, fmt.Errorf("-knob %q: unknown GODEBUG knob %q (known: %s)", s, knob, strings.Join(sortedKnobs(), ", "))
	}
	seen := map[string]bool{}
	for _, v := range strings.Split(list, ",") {
		v = strings.TrimSpace(v)
		if v == "" || strings.ContainsAny(v, " =:") {
			return "", nil, fmt.Errorf("-knob %q: bad value %q", s, v)
		}
		if seen[v] {
			return "", nil, fmt.Errorf("-knob %q: value %s twice", s, v)
		}
		seen[v] = true
		values = append(values, v)
	}
	return knob, values, nil
}

// SweepVariants makes one variant per knob value, named knob=value, on
// toolchain, with extra GODEBUG settings (may be empty) added.
func SweepVariants(toolchain, knob string, values []string, extra string) ([]Variant, error) {
	var vs []Variant
	for _, v := range values {
		gd := knob + "=" + v
		if extra != "" {
			gd = extra + "," + gd
		}
		if err := ValidateGODEBUG(gd); err != nil {
			return nil, err
		}
		vs = append(vs, Variant{Name: knob + "=" + v, Toolchain: toolchain, GODEBUG: gd})
	}
	return vs, nil
}

// ParseTradeoffs parses a comma-separated list of x:y metric pairs.
func ParseTradeoffs(s string) ([]string, error) {
	var tos []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if x, y, ok := strings.Cut(t, ":"); !ok || x == "" || y == "" {
			return nil, fmt.Errorf("-tradeoff %q: want x-metric:y-metric pairs", s)
		}
		tos = append(tos, t)
	}
	return tos, nil
}
