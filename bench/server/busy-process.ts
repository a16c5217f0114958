/**
 * A process that keeps one core busy and does nothing else, for the benchmarks that
 * measure the app beside other work (the rush bench's `saturated` load): it prints `busy`,
 * then spins until it is killed.
 */
process.stdout.write('busy\n');
let spins = 0;
for (;;) spins = (spins + 1) % 1_000_000_007;
