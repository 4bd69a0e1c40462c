package sandbox

import "rooda/host/sandbox/confine"

// handOver is the trampoline's hand-over of its listeners (confine's),
// which the proxy's tests play.
var handOver = confine.HandOver
