package dev.corral.server.tree;

import static dev.corral.proto.v1.CreateMode.CONTAINER;
import static dev.corral.proto.v1.CreateMode.EPHEMERAL;
import static dev.corral.proto.v1.CreateMode.EPHEMERAL_SEQUENTIAL;
import static dev.corral.proto.v1.CreateMode.PERSISTENT;
import static dev.corral.proto.v1.CreateMode.PERSISTENT_SEQUENTIAL;
import static dev.corral.server.tree.Requests.create;
import static dev.corral.server.tree.Requests.createOf;
import static dev.corral.server.tree.Requests.delete;
import static dev.corral.server.tree.Requests.multi;
import static dev.corral.server.tree.Requests.opCheck;
import static dev.corral.server.tree.Requests.opCreate;
import static dev.corral.server.tree.Requests.setData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.corral.proto.internal.CloseSession;
import dev.corral.proto.internal.OpenSession;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.Request;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DigestTest {

  /** A varied txn sequence: writes that succeed and fail, sessions opening and closing. */
  private static List<Txn> workload(long seed) {
    Random random = new Random(seed);
    List<Txn> txns = new ArrayList<>();
    List<Long> sessions = new ArrayList<>();
    CreateMode[] modes = {PERSISTENT, EPHEMERAL, PERSISTENT_SEQUENTIAL, EPHEMERAL_SEQUENTIAL, CONTAINER};
    for (int i = 1; i <= 600; i++) {
      long zxid = Zxid.of(i, 0);
      int choice = random.nextInt(10);
      if (sessions.isEmpty() || choice == 0) {
        txns.add(Txn.newBuilder().setOpenSession(OpenSession.newBuilder().setTimeoutMs(4000)).build());
        sessions.add(zxid);
        continue;
      }
      long session = sessions.get(random.nextInt(sessions.size()));
      String path = "/n" + random.nextInt(4) + (random.nextBoolean() ? "/m" + random.nextInt(4) : "");
      Request request = switch (choice) {
        case 1 -> create(createOf(path, modes[random.nextInt(modes.length)]).setParentMode(CONTAINER));
        case 2, 3 -> create(path, modes[random.nextInt(modes.length)]);
        case 4 -> delete(path, -1);
        case 5 -> setData(path, "d" + i, random.nextInt(3) - 1);
        case 6 -> multi(opCreate(path + "/x", PERSISTENT), opCheck(path, random.nextInt(2) - 1));
        default -> null;
      };
      if (request == null) {
        if (choice == 9) {
          sessions.remove(session);
          txns.add(Txn.newBuilder().setSessionId(session).setCloseSession(CloseSession.getDefaultInstance()).build());
        } else {
          txns.add(Txn.newBuilder().setSessionId(session).setRequest(create(path + "/s-", PERSISTENT_SEQUENTIAL)).build());
        }
        continue;
      }
      txns.add(Txn.newBuilder().setSessionId(session).setRequest(request).build());
    }
    return txns;
  }

  private static DataTree run(List<Txn> txns) {
    DataTree tree = new DataTree();
    for (int i = 0; i < txns.size(); i++) {
      tree.apply(Zxid.of(i + 1, 0), 1_000L * i, TreeRules.CURRENT, txns.get(i));
    }
    return tree;
  }

  @Test
  void treesApplyingTheSameTxnsHaveEqualDigestsAndResults() {
    List<Txn> txns = workload(7);
    DataTree a = new DataTree();
    DataTree b = new DataTree();
    for (int i = 0; i < txns.size(); i++) {
      TxnResult ra = a.apply(Zxid.of(i + 1, 0), 1_000L * i, TreeRules.CURRENT, txns.get(i));
      TxnResult rb = b.apply(Zxid.of(i + 1, 0), 1_000L * i, TreeRules.CURRENT, txns.get(i));
      assertEquals(ra, rb, "txn " + i);
    }
    assertEquals(a.digest(), b.digest());
    assertNotEquals(new DataTree().digest(), a.digest());
  }

  @Test
  void replicaRestoredFromASnapshotMidwayConverges() throws IOException {
    List<Txn> txns = workload(11);
    DataTree leader = run(txns);
    DataTree prefix = run(txns.subList(0, 300));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    prefix.snapshot().writeTo(out);
    DataTree replica = DataTree.load(new ByteArrayInputStream(out.toByteArray()));
    for (int i = 300; i < txns.size(); i++) {
      replica.apply(Zxid.of(i + 1, 0), 1_000L * i, TreeRules.CURRENT, txns.get(i));
    }
    assertEquals(leader.digest(), replica.digest());
    assertEquals(leader.nodeCount(), replica.nodeCount());
  }

  @Test
  void differentHistoriesGiveDifferentDigests() {
    assertNotEquals(run(workload(7)).digest(), run(workload(8)).digest());
  }

  @Test
  void nodeHashChangesWithEveryField() {
    Node base = new Node(new byte[] {1}, 1, 2, 3, 4, 5, 6, 7, 8, CreateMode.EPHEMERAL, 0, 9);
    List<Node> variants = List.of(
        new Node(new byte[] {2}, 1, 2, 3, 4, 5, 6, 7, 8, CreateMode.EPHEMERAL, 0, 9),
        new Node(new byte[] {1}, 0, 2, 3, 4, 5, 6, 7, 8, CreateMode.EPHEMERAL, 0, 9),
        new Node(new byte[] {1}, 1, 0, 3, 4, 5, 6, 7, 8, CreateMode.EPHEMERAL, 0, 9),
        new Node(new byte[] {1}, 1, 2, 0, 4, 5, 6, 7, 8, CreateMode.EPHEMERAL, 0, 9),
        new Node(new byte[] {1}, 1, 2, 3, 0, 5, 6, 7, 8, CreateMode.EPHEMERAL, 0, 9),
        new Node(new byte[] {1}, 1, 2, 3, 4, 0, 6, 7, 8, CreateMode.EPHEMERAL, 0, 9),
        new Node(new byte[] {1}, 1, 2, 3, 4, 5, 0, 7, 8, CreateMode.EPHEMERAL, 0, 9),
        new Node(new byte[] {1}, 1, 2, 3, 4, 5, 6, 0, 8, CreateMode.EPHEMERAL, 0, 9),
        new Node(new byte[] {1}, 1, 2, 3, 4, 5, 6, 7, 0, CreateMode.EPHEMERAL, 0, 9),
        new Node(new byte[] {1}, 1, 2, 3, 4, 5, 6, 7, 8, CreateMode.PERSISTENT, 0, 9),
        new Node(new byte[] {1}, 1, 2, 3, 4, 5, 6, 7, 8, CreateMode.EPHEMERAL, 1, 9),
        new Node(new byte[] {1}, 1, 2, 3, 4, 5, 6, 7, 8, CreateMode.EPHEMERAL, 0, 0));
    long hash = Digests.node("/a", base);
    assertEquals(hash, Digests.node("/a", new Node(new byte[] {1}, 1, 2, 3, 4, 5, 6, 7, 8, CreateMode.EPHEMERAL, 0, 9)));
    assertNotEquals(hash, Digests.node("/b", base), "path");
    for (int i = 0; i < variants.size(); i++) {
      assertNotEquals(hash, Digests.node("/a", variants.get(i)), "variant " + i);
    }
  }

  @Test
  void digestCoversDataStatAndSessions() {
    Harness one = new Harness();
    Harness two = new Harness();
    long s1 = one.openSession();
    long s2 = two.openSession();
    one.ok(s1, create("/a"));
    two.ok(s2, create("/a"));
    assertEquals(one.tree.digest(), two.tree.digest());

    one.ok(s1, setData("/a", "x", -1));
    two.ok(s2, setData("/a", "y", -1));
    assertNotEquals(one.tree.digest(), two.tree.digest(), "data");

    Harness three = new Harness();
    long s3 = three.openSession();
    three.ok(s3, create("/a"));
    three.timeMs += 1;
    three.ok(s3, setData("/a", "x", -1));
    assertNotEquals(one.tree.digest(), three.tree.digest(), "mtime");

    long before = one.tree.digest();
    one.openSession();
    assertNotEquals(before, one.tree.digest(), "sessions");
  }
}
