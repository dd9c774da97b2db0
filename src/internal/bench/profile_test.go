package bench

import (
	"strings"
	"testing"
)

func TestParseProfileKinds(t *testing.T) {
	if k, err := ParseProfileKinds("block, mutex"); err != nil || strings.Join(k, ",") != "block,mutex" {
		t.Errorf("block, mutex: %q, %v", k, err)
	}
	if k, err := ParseProfileKinds(""); err != nil || len(k) != 0 {
		t.Errorf("empty: %q, %v", k, err)
	}
	if _, err := ParseProfileKinds("block,cpu"); err == nil {
		t.Error("cpu accepted")
	}
}
