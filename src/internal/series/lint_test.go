package series

import (
	"strings"
	"testing"
)

func TestParsePin(t *testing.T) {
	p, err := ParsePin([]byte("# comment\nversion go1.27.3\nchecksum h1:abc=\n"))
	if err != nil || p.Version != "go1.27.3" || p.Checksum != "h1:abc=" {
		t.Fatalf("ParsePin = %+v, %v", p, err)
	}
	back, err := ParsePin(p.Format())
	if err != nil || back != p {
		t.Errorf("Format round trip = %+v, %v", back, err)
	}
	for _, bad := range []string{"", "version go1.27.3\n", "version 1.27\nchecksum h1:x\n", "version go1.27.3\nchecksum md5:x\n", "bogus line\n", "color blue\n"} {
		if _, err := ParsePin([]byte(bad)); err == nil {
			t.Errorf("ParsePin(%q) succeeded", bad)
		}
	}
}

func TestValidRelease(t *testing.T) {
	for v, want := range map[string]bool{"go1.27.3": true, "go1.26": true, "go1.27rc1": true, "1.27.3": false, "go1.": false, "go1.x": false, "go2.0": false} {
		if got := validRelease(v); got != want {
			t.Errorf("validRelease(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestStampedVersion(t *testing.T) {
	if got := StampedVersion("go1.27.3", 2, "0123456789ab"); got != "go1.27.3-schedlab.2-0123456789ab" {
		t.Errorf("StampedVersion = %q", got)
	}
}

const goodPatch = `From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: A <a@b>
Date: Sun, 29 Nov 2026 21:32:54 +0000
Subject: [PATCH] runtime: count steal attempts per P so that experiments can
 see them

Nobody can see how stealing behaves: a run measured none [1].

[1] schedlab results/2026-12-01-vm-x (series 0123456789ab)

Updates #28808
---
 src/runtime/proc.go | 1 +
 1 file changed, 1 insertion(+)

diff --git a/src/runtime/proc.go b/src/runtime/proc.go
index 1..2 100644
--- a/src/runtime/proc.go
+++ b/src/runtime/proc.go
@@ -1 +1,2 @@
 package runtime
+// x
diff --git a/src/runtime/metrics/doc.go b/src/runtime/metrics/doc.go
`

func TestParsePatchAndLint(t *testing.T) {
	p, err := ParsePatch("0001-runtime-count.patch", []byte(goodPatch))
	if err != nil {
		t.Fatal(err)
	}
	if p.Subject != "runtime: count steal attempts per P so that experiments can see them" {
		t.Errorf("folded subject = %q", p.Subject)
	}
	if errs := p.Lint(); len(errs) != 0 {
		t.Errorf("good patch: %v", errs)
	}
	if got := strings.Join(touchedPackages(p.Files), ","); got != "runtime,runtime/metrics" {
		t.Errorf("touchedPackages = %q", got)
	}

	cases := map[string]string{
		"capitalised verb":     strings.Replace(goodPatch, "runtime: count", "runtime: Count", 1),
		"no package":           strings.Replace(goodPatch, "runtime: count", "Count", 1),
		"trailing period":      strings.Replace(goodPatch, "see them\n", "see them.\n", 1),
		"Upstream trailer":     strings.Replace(goodPatch, "Updates #28808\n", "Updates #28808\n\nUpstream: not-forwarded\n", 1),
		"folder in the prose":  strings.Replace(goodPatch, "measured none [1]", "measured none (results/2026-12-01-vm-x)", 1),
		"reference not listed": strings.Replace(goodPatch, "[1] schedlab", "[2] schedlab", 1),
		"reference not cited":  strings.Replace(goodPatch, "measured none [1]", "measured none", 1),
		"no why":               strings.Replace(goodPatch, "Nobody can see how stealing behaves: a run measured none [1].\n\n", "", 1),
		"subject too long":     strings.Replace(goodPatch, "so that", "so that a few more words make it", 1),
	}
	for name, text := range cases {
		p, err := ParsePatch("0001-x.patch", []byte(text))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if errs := p.Lint(); len(errs) == 0 {
			t.Errorf("%s: lint passed", name)
		}
	}
	if _, err := ParsePatch("x.patch", []byte("just text\n")); err == nil {
		t.Error("ParsePatch accepted a non-patch")
	}
}
