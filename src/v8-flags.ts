import { setFlagsFromString } from 'node:v8';
import { holdOptimizingCompilers } from './common/runtime/start-up-compilers';
import { capYoungGeneration } from './common/runtime/young-generation';

/*
 * V8 settings of the service, applied before anything else is loaded
 * (main.ts imports this first).
 *
 * Allocation-site pretenuring off: once a read-ahead batch of a long read
 * (an iCalendar feed, a changes-feed sync) is alive at a young collection,
 * V8 marks the sites that allocate its rows "tenured" and allocates every
 * later row straight in the old generation. Those rows die a batch later,
 * but until the next full collection they keep their young strings alive
 * through every scavenge, so the texts of a whole feed were promoted (60 MB
 * over 100,000 events) and the heap grew until a full collection (RSS +50 to
 * +70 MB on the first feed after start). Off: 9 MB promoted, RSS +8 to +13 MB;
 * lists and single reads unchanged (docs/performance.md, iCalendar feeds).
 * V8 reads the flag at each collection, so setting it at start-up holds.
 */
setFlagsFromString('--no-allocation-site-pretenuring');

/*
 * Young generation at most 32 MB (both semi-spaces; V8's own bound is 32 MB
 * on Node 20 and 128 MB on Node 24). Start-up alone grew it to its bound
 * (idle RSS 147 / 196 MB before the start-up collection in main.ts gave it
 * back). Under load it grows to the cap: at 8 MB a create's objects were
 * scavenged and promoted so often that 32 MB gave +10 % creates/s and −11 %
 * CPU per create, +13 % records/s in a sync (docs/performance.md). V8's
 * memory reducer gives a load's growth back about 20 s after it ends.
 */
const YOUNG_GENERATION_MB = 32;
capYoungGeneration(YOUNG_GENERATION_MB * 1024 * 1024);

/*
 * The old generation may grow to 1.5× what survived the last full
 * collection before the next one. V8 picks the factor from its GC speed and
 * allows up to 4× for a fast collector: over the ~45 MB the service keeps
 * (code, module source, caches), that let the heap reach 200+ MB under load
 * while the minimal reference server, with a few MB live, stayed at 4× of
 * little. At 1.5× the bench peak went 217–256 → 147–148 MB (Node 20, minimal
 * server 158–169 MB in the same runs) with no CPU-per-request change out of
 * the noise. V8 reads the factor at each full collection.
 */
setFlagsFromString('--heap-growing-percent=50');

/*
 * No compiler beyond the interpreter while the service starts (start-up code
 * runs once; compiling it held 7 to 11 MB of the idle RSS): main.ts switches
 * them back on before it listens (src/common/runtime/start-up-compilers.ts).
 */
holdOptimizingCompilers();
