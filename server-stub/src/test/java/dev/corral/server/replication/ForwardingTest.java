package dev.corral.server.replication;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.internal.Txn;
import dev.corral.server.tree.TxnResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three members in one JVM. Followers hand their txns to the leader, which
 * packs them with its own and each other's into its log entries, one entry in
 * flight at a time, keeping each member's order.
 */
class ForwardingTest {
  private static final long WAIT_SECONDS = 60;
  private static final int EACH = 200;
  private static final int ROUNDS = 5;
  /** Proposals, one each 50 ms, while waiting for a new leader: about a minute at most. */
  private static final int MAX_PROPOSALS_WHILE_GONE = 1200;

  @TempDir
  Path dataDirs;

  private final List<RaftReplicator> running = new ArrayList<>();

  @AfterEach
  void closeEverything() {
    running.forEach(RaftReplicator::close);
  }

  @Test
  void txnsOfEveryMemberShareTheLeadersEntriesAndKeepEachMembersOrder() throws Exception {
    List<RecordingState> states = List.of(new RecordingState(), new RecordingState(), new RecordingState());
    LocalMembers.startThree(dataDirs, states, b -> b, running);
    int leader = running.indexOf(LocalMembers.awaitLeader(running));
    List<Txns> sessions = new ArrayList<>();
    for (RaftReplicator member : running) {
      sessions.add(Txns.openSession(member));
    }

    // rounds of writes pipelined from all three members at once, until an entry of the leader's holds the writes
    // of more than one member: which do depends on how the members' threads interleave, so a round may not mix
    RecordingState leaders = states.get(leader);
    int proposed = 0;
    Map<Long, Long> lastIdByOrigin = new HashMap<>();
    int entriesOfSeveralMembers = 0;
    for (int round = 0; round < ROUNDS && entriesOfSeveralMembers == 0; round++) {
      List<CompletableFuture<TxnResult>> futures = new ArrayList<>();
      for (int i = 0; i < EACH; i++) {
        for (int m = 0; m < running.size(); m++) {
          futures.add(running.get(m).propose(sessions.get(m).create("/m" + m + "-" + round + "-" + i)));
        }
      }
      for (CompletableFuture<TxnResult> future : futures) {
        future.get(WAIT_SECONDS, TimeUnit.SECONDS);
      }
      proposed += futures.size();
      int expected = proposed;
      await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(() -> writesIn(leaders.applied()) == expected);
      entriesOfSeveralMembers = mixedEntriesInMemberOrder(leaders.applied(), lastIdByOrigin);
    }
    assertEquals(3, lastIdByOrigin.size(), "every member's writes were logged");
    assertTrue(entriesOfSeveralMembers > 0, "in " + ROUNDS + " rounds, no entry held the writes of more than one member");
  }

  /**
   * The leader goes away while a follower still takes it for the leader (long
   * election timeouts: seconds). Txns proposed at the follower meanwhile are
   * held there, not handed to a link that cannot connect, and go to the next
   * leader once the follower knows it. Only txns handed over before the link saw
   * its leader go may fail (outcome unknown), and those come first; handed over
   * like them, every later one would fail too, when the next leader is known.
   */
  @Test
  void txnsProposedAtAFollowerWhileItsLeaderIsGoneGoToTheNextLeader() throws Exception {
    List<RecordingState> states = List.of(new RecordingState(), new RecordingState(), new RecordingState());
    LocalMembers.startThree(dataDirs, states,
        b -> b.electionTimeout(Duration.ofSeconds(5), Duration.ofSeconds(6)).operationTimeout(Duration.ofMinutes(2)),
        running);
    RaftReplicator leader = LocalMembers.awaitLeader(running);
    RaftReplicator follower = running.stream().filter(r -> r != leader).findFirst().orElseThrow();
    Txns session = Txns.openSession(follower);
    follower.propose(session.create("/before")).get(WAIT_SECONDS, TimeUnit.SECONDS); // its link is connected
    String gone = leader.view().memberId();

    leader.close();
    List<CompletableFuture<TxnResult>> whileGone = new ArrayList<>();
    for (int i = 0; i < MAX_PROPOSALS_WHILE_GONE && takesForLeader(follower, gone); i++) {
      whileGone.add(follower.propose(session.create("/while-gone-" + i)));
      Thread.sleep(50);
    }
    assertFalse(takesForLeader(follower, gone), "no new leader after " + whileGone.size() + " proposals");

    int succeeded = 0;
    for (CompletableFuture<TxnResult> future : whileGone) {
      boolean ok = future.handle((result, failure) -> failure == null && !result.response().hasError())
          .get(WAIT_SECONDS, TimeUnit.SECONDS);
      assertTrue(ok || succeeded == 0, "a txn failed after " + succeeded + " proposed before it had succeeded: "
          + future.handle((result, failure) -> failure != null ? failure : result.response()).join());
      succeeded += ok ? 1 : 0;
    }
    assertTrue(succeeded >= 10, "only " + succeeded + " of " + whileGone.size() + " txns succeeded");
  }

  /** True while {@code member} still takes {@code gone} for the leader, or knows none. */
  private static boolean takesForLeader(RaftReplicator member, String gone) {
    String leader = member.view().leaderId();
    return leader.equals(gone) || leader.isEmpty();
  }

  /**
   * Checks that each member's writes were logged in its order, noting the last proposal id of each member in
   * {@code lastIdByOrigin}, and counts the entries holding the writes of more than one member.
   */
  private static int mixedEntriesInMemberOrder(List<RecordingState.Applied> applied, Map<Long, Long> lastIdByOrigin) {
    lastIdByOrigin.clear();
    int mixed = 0;
    for (RecordingState.Applied entry : applied) {
      List<Txn> writes = entry.entry().getTxnsList().stream().filter(Txn::hasRequest).toList();
      for (Txn txn : writes) {
        Long last = lastIdByOrigin.put(txn.getOrigin(), txn.getProposalId());
        assertTrue(last == null || last < txn.getProposalId(),
            "member " + txn.getOrigin() + "'s txn " + txn.getProposalId() + " came after its " + last);
      }
      if (writes.stream().map(Txn::getOrigin).distinct().count() > 1) {
        mixed++;
      }
    }
    return mixed;
  }

  private static long writesIn(List<RecordingState.Applied> applied) {
    return applied.stream().mapToLong(a -> a.entry().getTxnsList().stream().filter(Txn::hasRequest).count()).sum();
  }
}
