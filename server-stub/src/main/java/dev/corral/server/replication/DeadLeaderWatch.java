package dev.corral.server.replication;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;

/**
 * On a follower: when to look whether the leader's process is gone, so that an
 * election starts at once instead of after Ratis's election timeout.
 *
 * <p>Ratis's follower sleeps a random election timeout, then checks whether it
 * heard from the leader within that timeout; if it did, it sleeps a whole new
 * timeout. A leader's death is therefore noticed between one and two timeouts
 * after its last heartbeat (W6: the new leader was seen 630 ms after a kill -9
 * with 200-400 ms timeouts). A follower that has not heard from the leader for
 * longer than the leader's heartbeat interval (half the minimum timeout) looks
 * at the leader's peer port: a port that refuses connections means no process
 * listens there, which a slow, paused or cut-off leader never shows (those are
 * left to the timeout). Followers look one after another, in member order, so
 * that one candidate stands instead of two splitting the vote.
 */
final class DeadLeaderWatch {
  private static final Duration PROBE_TIMEOUT = Duration.ofMillis(100);

  private final long quietMs;
  private final long staggerMs;
  private boolean looked;
  private long nextLookNanos;

  /**
   * @param electionTimeoutMin the members' minimum election timeout; the leader
   *     heartbeats every half of it
   */
  DeadLeaderWatch(Duration electionTimeoutMin) {
    this.quietMs = electionTimeoutMin.toMillis() * 3 / 5;
    this.staggerMs = Math.max(1, electionTimeoutMin.toMillis() / 4);
  }

  /**
   * True when the follower ranked {@code rank} (0 first) has not heard from the
   * leader for long enough to look at it now; after a look, the next one waits
   * a stagger, so a live leader is not probed on every check.
   */
  boolean due(long sinceLeaderHeardMs, int rank, long nowNanos) {
    if (sinceLeaderHeardMs < quietMs + rank * staggerMs || (looked && nowNanos - nextLookNanos < 0)) {
      return false;
    }
    looked = true;
    nextLookNanos = nowNanos + Duration.ofMillis(staggerMs).toNanos();
    return true;
  }

  /** Where {@code self} stands among the members other than {@code leader}, in config order. */
  static int rank(List<String> memberIds, String leader, String self) {
    int rank = 0;
    for (String id : memberIds) {
      if (id.equals(self)) {
        return rank;
      }
      if (!id.equals(leader)) {
        rank++;
      }
    }
    throw new IllegalArgumentException(self + " is not one of the members " + memberIds);
  }

  /**
   * True when nothing listens at {@code address} (the connection is refused);
   * false when something accepts or the attempt times out, which a paused or
   * unreachable process also causes.
   */
  static boolean refusesConnections(InetSocketAddress address) {
    try (Socket socket = new Socket()) {
      socket.connect(address, (int) PROBE_TIMEOUT.toMillis());
      return false;
    } catch (ConnectException e) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
