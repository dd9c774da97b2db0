// Command hello is the census's footprint program: a program that sets no
// knob and uses nothing of the runtime's beyond start-up, whose section
// sizes show what every binary a toolchain builds carries.
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
