package dev.corral.server;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the standalone server's JVM sizes its heap: it gives back what it does not
 * hold. The JVM's defaults keep up to 70% of the heap free after a collection and
 * never collect an idle heap, so a server that once took a burst of writes kept the
 * memory for good: 2,750 bytes of RSS per 100-byte node in bench MEM, against 1,330
 * with at most 10-20% free. These are HotSpot's manageable flags, set here so that
 * every way of starting the server (bin/corral-server, bin/corral-ensemble, the
 * bench, ProcessEnsemble) runs the same way. A flag given on the java command line
 * is left as given. An embedded server (TestingServer) does not touch its host JVM.
 */
final class HeapPolicy {
  private static final Logger LOG = LoggerFactory.getLogger(HeapPolicy.class);

  /** Grow the heap after a collection that leaves less than this share free. */
  static final String MIN_FREE = "MinHeapFreeRatio";
  /** Shrink the heap after a full collection (or G1's remark) that leaves more than this share free. */
  static final String MAX_FREE = "MaxHeapFreeRatio";
  /** G1 runs a concurrent cycle after this long without one, so an idle server shrinks too. */
  static final String PERIODIC_GC_MS = "G1PeriodicGCInterval";

  static final int MIN_FREE_PERCENT = 10;
  static final int MAX_FREE_PERCENT = 20;
  static final long PERIODIC_GC_EVERY_MS = 60_000;

  private HeapPolicy() {}

  /** Applies the policy to this JVM and logs what it set; returns the flags it set, as "name=value". */
  static List<String> apply() {
    HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    List<String> set = new ArrayList<>();
    // Min first: HotSpot refuses a Min above the current Max, and the default Max (70) is above both.
    setIfDefault(vm, MIN_FREE, MIN_FREE_PERCENT, set);
    setIfDefault(vm, MAX_FREE, MAX_FREE_PERCENT, set);
    setIfDefault(vm, PERIODIC_GC_MS, PERIODIC_GC_EVERY_MS, set);
    if (!set.isEmpty()) {
      LOG.info("Heap policy: {}", String.join(", ", set));
    }
    return set;
  }

  private static void setIfDefault(HotSpotDiagnosticMXBean vm, String name, long value, List<String> set) {
    Optional<VMOption> option = option(vm, name);
    if (option.isEmpty() || option.get().getOrigin() != VMOption.Origin.DEFAULT || !option.get().isWriteable()) {
      return; // not this JVM's flag (another GC), or given on the command line
    }
    try {
      vm.setVMOption(name, Long.toString(value));
      set.add(name + "=" + value);
    } catch (IllegalArgumentException e) {
      // e.g. MinHeapFreeRatio above a MaxHeapFreeRatio given on the command line
      LOG.info("Left {} at {}: {}", name, option.get().getValue(), e.getMessage());
    }
  }

  private static Optional<VMOption> option(HotSpotDiagnosticMXBean vm, String name) {
    try {
      return Optional.of(vm.getVMOption(name));
    } catch (IllegalArgumentException noSuchFlag) {
      return Optional.empty();
    }
  }
}
