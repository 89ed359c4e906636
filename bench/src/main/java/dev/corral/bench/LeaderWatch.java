package dev.corral.bench;

import dev.corral.bench.Ensemble.MemberView;
import dev.corral.bench.Ensemble.Role;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Polls every member of an ensemble (each 250 ms) and records each change of
 * leader: the member that says LEADER at the highest term, and that term. The
 * leader seen first is the baseline, not a change. A leader that loses and wins
 * again between two polls shows as a higher term: {@link #termsBetween} counts
 * those too.
 */
final class LeaderWatch implements AutoCloseable {
  static final long POLL_MS = 250;

  /** A leader seen from {@code nanos} on. */
  record Leader(long nanos, String self, long term) {}

  private final Ensemble ensemble;
  private final List<Leader> leaders = new ArrayList<>();
  private final Thread thread;
  private volatile boolean stop;

  LeaderWatch(Ensemble ensemble, String system) {
    this.ensemble = ensemble;
    this.thread = new Thread(this::poll, "w6-leader-watch-" + system);
    thread.setDaemon(true);
    thread.start();
  }

  private void poll() {
    while (!stop) {
      long now = System.nanoTime();
      Optional<MemberView> leader = ensemble.views().stream().flatMap(Optional::stream)
          .filter(v -> v.role() == Role.LEADER)
          .max(Comparator.comparingLong(MemberView::term));
      leader.ifPresent(v -> {
        synchronized (leaders) {
          Leader last = leaders.isEmpty() ? null : leaders.get(leaders.size() - 1);
          if (last == null || !last.self().equals(v.self()) || last.term() != v.term()) {
            leaders.add(new Leader(now, v.self(), v.term()));
          }
        }
      });
      try {
        Thread.sleep(Math.max(1, POLL_MS - (System.nanoTime() - now) / 1_000_000));
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Every leader seen, in order. */
  List<Leader> leaders() {
    synchronized (leaders) {
      return new ArrayList<>(leaders);
    }
  }

  /** Changes of leader (or of its term) first seen in [from, to) of System.nanoTime(); the baseline is not one. */
  List<Leader> changesBetween(long from, long to) {
    List<Leader> all = leaders();
    List<Leader> changes = new ArrayList<>();
    for (int i = 1; i < all.size(); i++) {
      long t = all.get(i).nanos();
      if (t >= from && t < to) {
        changes.add(all.get(i));
      }
    }
    return changes;
  }

  /** How much the leader's term grew in [from, to): elections, lost ones included where the term shows them. */
  long termsBetween(long from, long to) {
    long before = -1;
    long after = -1;
    for (Leader l : leaders()) {
      if (l.nanos() < from) {
        before = Math.max(before, l.term());
      }
      if (l.nanos() < to) {
        after = Math.max(after, l.term());
      }
    }
    return before < 0 || after < 0 ? 0 : after - before;
  }

  /** The leader seen first at or after {@code from}, if any. */
  Optional<Leader> firstSince(long from) {
    return leaders().stream().filter(l -> l.nanos() >= from).findFirst();
  }

  @Override
  public void close() throws InterruptedException {
    stop = true;
    thread.interrupt();
    thread.join(5000);
  }
}
