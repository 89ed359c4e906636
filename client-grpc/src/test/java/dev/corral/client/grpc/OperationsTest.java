package dev.corral.client.grpc;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.BadVersionException;
import dev.corral.client.ClientClosedException;
import dev.corral.client.Code;
import dev.corral.client.CreateMode;
import dev.corral.client.DataTooLargeException;
import dev.corral.client.CreateOptions;
import dev.corral.client.Created;
import dev.corral.client.EventType;
import dev.corral.client.InvalidPathException;
import dev.corral.client.NoNodeException;
import dev.corral.client.NodeExistsException;
import dev.corral.client.Op;
import dev.corral.client.OpResult;
import dev.corral.client.Protection;
import dev.corral.client.SequentialNames;
import dev.corral.client.WatchedEvent;
import dev.corral.testing.TestingServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OperationsTest {
  private static final byte[] NONE = new byte[0];

  private TestingServer server;
  private FaultInjector faults;
  private CorralClient client;
  private final List<AutoCloseable> others = new ArrayList<>();

  @BeforeEach
  void start() throws InterruptedException {
    server = new TestingServer();
    faults = new FaultInjector();
    client = CorralClient.builder().connectString(server.getConnectString())
        .sessionTimeout(Duration.ofSeconds(10)).interceptor(faults).build();
    assertTrue(client.blockUntilConnected(30, TimeUnit.SECONDS));
  }

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable other : others) {
      other.close();
    }
    client.close();
    server.close();
  }

  private CorralClient another(String namespace) throws InterruptedException {
    CorralClient.Builder builder = CorralClient.builder().connectString(server.getConnectString());
    CorralClient other = (namespace == null ? builder : builder.namespace(namespace)).build();
    others.add(other);
    assertTrue(other.blockUntilConnected(30, TimeUnit.SECONDS));
    return other;
  }

  @Test
  void tenThousandPipelinedCreatesAllSucceedAndCompleteInOrder() throws Exception {
    client.create("/p", NONE, CreateMode.PERSISTENT);
    int count = 10_000;
    ConcurrentLinkedQueue<Integer> completed = new ConcurrentLinkedQueue<>();
    List<CompletableFuture<Created>> creates = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int index = i;
      CompletableFuture<Created> create = client.async().create("/p/n-", NONE,
          CreateOptions.of(CreateMode.PERSISTENT_SEQUENTIAL));
      create.thenRun(() -> completed.add(index));
      creates.add(create);
    }
    CompletableFuture.allOf(creates.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

    for (int i = 0; i < count; i++) {
      assertEquals(i, SequentialNames.sequenceOf(creates.get(i).get().path()), "sequence of create " + i);
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> completed.size() == count);
    int expected = 0;
    for (int index : completed) {
      assertEquals(expected++, index, "completions come in request order");
    }
    assertEquals(count, client.getChildren("/p").size());
  }

  @Test
  void protectedCreateWhoseReplyIsLostLeavesExactlyOneNodeAndReturnsIt() throws Exception {
    client.create("/locks", NONE, CreateMode.PERSISTENT);
    faults.dropOnce(message -> message.hasResponse() && message.getResponse().hasCreate()
        && message.getResponse().getCreate().getPath().contains(Protection.PREFIX));
    faults.dropped().thenRun(faults::cutStream);

    Created created = client.create("/locks/lock-", NONE, CreateOptions.builder(CreateMode.EPHEMERAL_SEQUENTIAL)
        .withProtection().build());

    assertTrue(faults.dropped().isDone(), "the first reply was dropped");
    List<String> children = client.getChildren("/locks");
    assertEquals(1, children.size(), "exactly one node: " + children);
    assertEquals("/locks/" + children.get(0), created.path());
    assertTrue(Protection.isProtected(children.get(0)));
    assertEquals("lock-", Protection.unprotected(children.get(0)).substring(0, 5));
    assertEquals(client.sessionId(), created.stat().ephemeralOwner());
  }

  /** As ZooKeeper's NullDataTest: null data is taken, and is no data. */
  @Test
  void nullDataIsNoData() throws Exception {
    client.create("/n", null, CreateMode.PERSISTENT);
    assertEquals(0, client.exists("/n").orElseThrow().dataLength());
    assertEquals(0, client.async().exists("/n").get(30, TimeUnit.SECONDS).orElseThrow().dataLength());
    assertArrayEquals(new byte[0], client.getData("/n").data());

    client.setData("/n", new byte[] {1, 2, 3}, -1);
    assertEquals(0, client.setData("/n", null, -1).dataLength());
    assertArrayEquals(new byte[0], client.getData("/n").data());

    client.multi(List.of(Op.create("/m", null, CreateMode.PERSISTENT), Op.setData("/n", null, -1)));
    assertEquals(0, client.exists("/m").orElseThrow().dataLength());
    assertEquals(3, client.exists("/n").orElseThrow().version(), "three sets of /n, each of no data");
  }

  @Test
  void badInputFailsFastWithTheTypedExceptionWithoutARoundTrip() throws Exception {
    int before = faults.operationsSent();
    assertThrows(InvalidPathException.class, () -> client.create(null, NONE, CreateMode.PERSISTENT));
    assertThrows(InvalidPathException.class, () -> client.create("relative", NONE, CreateMode.PERSISTENT));
    assertThrows(InvalidPathException.class, () -> client.create("/trailing/", NONE, CreateMode.PERSISTENT));
    assertThrows(InvalidPathException.class, () -> client.getData("/a//b"));
    assertThrows(InvalidPathException.class, () -> client.delete("/a/.", -1));
    assertThrows(InvalidPathException.class, () -> client.exists("/ctl\u0001"));
    assertThrows(InvalidPathException.class, () -> client.getChildren("/a/../b"));
    assertThrows(InvalidPathException.class, () -> client.multi(List.of(Op.check("nope", -1))));
    CompletableFuture<?> async = client.async().sync("");
    ExecutionException failure = assertThrows(ExecutionException.class, async::get);
    assertInstanceOf(InvalidPathException.class, failure.getCause());
    assertEquals(before, faults.operationsSent(), "nothing was sent");

    assertEquals("/q/0000000000", withQueue().path(), "a sequential create may end with '/'");
  }

  @Test
  void sequentialNumbersGoOnAsZooKeepersAfterDeletes() throws Exception {
    client.create("/seq", NONE, CreateMode.PERSISTENT);
    for (int i = 0; i < 3; i++) {
      Created created = client.create("/seq/n-", NONE, CreateMode.EPHEMERAL_SEQUENTIAL);
      assertEquals("/seq/n-000000000" + i, created.path(), "a delete does not take a number");
      client.delete(created.path());
    }
    assertEquals(6, client.exists("/seq").orElseThrow().cversion(), "cversion counts creates and deletes");
  }

  private Created withQueue() throws Exception {
    client.create("/q", NONE, CreateMode.PERSISTENT);
    return client.create("/q/", NONE, CreateMode.PERSISTENT_SEQUENTIAL);
  }

  @Test
  void namespacePrefixesPathsSentAndStripsPathsReceived() throws Exception {
    CorralClient app = another("app");
    CorralClient root = another(null);
    BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
    app.exists("/x", events::add);

    Created created = app.create("/x", "hi".getBytes(), CreateMode.PERSISTENT);
    Created sequential = app.create("/x/s-", NONE, CreateMode.PERSISTENT_SEQUENTIAL);

    assertEquals("/x", created.path());
    assertEquals("/x/s-0000000000", sequential.path());
    assertArrayEquals("hi".getBytes(), root.getData("/app/x").data());
    assertEquals(List.of("x"), app.getChildren("/"));
    WatchedEvent event = events.poll(30, TimeUnit.SECONDS);
    assertEquals(new WatchedEvent(EventType.NODE_CREATED, "/x", created.stat().czxid()), event);
    NoNodeException missing = assertThrows(NoNodeException.class, () -> app.getData("/missing"));
    assertEquals("/missing", missing.path());
    OpResult.CreateResult inMulti = (OpResult.CreateResult) app.multi(
        List.of(Op.create("/y", NONE, CreateMode.PERSISTENT))).get(0);
    assertEquals("/y", inMulti.path());
  }

  @Test
  void multiReturnsTypedResultsInOrder() throws Exception {
    List<OpResult> results = client.multi(List.of(
        Op.create("/m", "a".getBytes(), CreateMode.PERSISTENT),
        Op.setData("/m", "b".getBytes(), 0),
        Op.check("/m", 1),
        Op.getData("/m"),
        Op.exists("/m"),
        Op.getChildren("/m"),
        Op.delete("/m", 1),
        Op.exists("/m")));

    assertEquals("/m", ((OpResult.CreateResult) results.get(0)).path());
    assertEquals(1, ((OpResult.SetDataResult) results.get(1)).stat().version());
    assertInstanceOf(OpResult.CheckResult.class, results.get(2));
    assertArrayEquals("b".getBytes(), ((OpResult.GetDataResult) results.get(3)).data().data());
    assertTrue(((OpResult.ExistsResult) results.get(4)).stat().isPresent());
    assertEquals(List.of(), ((OpResult.GetChildrenResult) results.get(5)).children());
    assertInstanceOf(OpResult.DeleteResult.class, results.get(6));
    assertTrue(((OpResult.ExistsResult) results.get(7)).stat().isEmpty());
  }

  @Test
  void aFailedMultiThrowsTheFailingOpsExceptionWithEveryOpsResult() throws Exception {
    client.create("/v", NONE, CreateMode.PERSISTENT);
    BadVersionException failure = assertThrows(BadVersionException.class, () -> client.multi(List.of(
        Op.create("/made", NONE, CreateMode.PERSISTENT),
        Op.setData("/v", NONE, 7))));

    assertEquals(2, failure.opResults().size());
    assertEquals(Code.ROLLED_BACK, ((OpResult.ErrorResult) failure.opResults().get(0)).code());
    assertEquals(Code.BAD_VERSION, ((OpResult.ErrorResult) failure.opResults().get(1)).code());
    assertFalse(client.exists("/made").isPresent(), "nothing of a failed multi happened");
  }

  @Test
  void aMultiRefusedForTooMuchDataAlsoGivesEveryOpsResult() throws Exception {
    DataTooLargeException failure = assertThrows(DataTooLargeException.class, () -> client.multi(List.of(
        Op.create("/m", NONE, CreateMode.PERSISTENT),
        Op.create("/m/big", new byte[(1 << 20) + 1], CreateMode.PERSISTENT),
        Op.create("/m/c", NONE, CreateMode.PERSISTENT))));

    assertEquals(List.of(Code.ROLLED_BACK, Code.DATA_TOO_LARGE, Code.ROLLED_BACK),
        failure.opResults().stream().map(r -> ((OpResult.ErrorResult) r).code()).toList());
    assertFalse(client.exists("/m").isPresent());
  }

  @Test
  void aMultiOfReadsAnswersAMissingNodeInItsPlaceAsZooKeepersMultiRead() throws Exception {
    client.create("/r", NONE, CreateMode.PERSISTENT);
    client.create("/r/a", NONE, CreateMode.PERSISTENT);

    List<OpResult> results = client.multi(List.of(Op.getData("/r/none"), Op.getChildren("/r"), Op.exists("/r/none")));

    assertEquals(Code.NO_NODE, ((OpResult.ErrorResult) results.get(0)).code());
    assertEquals(List.of("a"), ((OpResult.GetChildrenResult) results.get(1)).children());
    assertEquals(new OpResult.ExistsResult(java.util.Optional.empty()), results.get(2));
  }

  @Test
  void serverErrorsBecomeTypedExceptions() throws Exception {
    client.create("/e", NONE, CreateMode.PERSISTENT);
    assertThrows(NodeExistsException.class, () -> client.create("/e", NONE, CreateMode.PERSISTENT));
    assertThrows(BadVersionException.class, () -> client.setData("/e", NONE, 5));
    assertThrows(NoNodeException.class, () -> client.delete("/nothing"));
    client.delete("/e", 0);
    assertTrue(client.exists("/e").isEmpty());
  }

  @Test
  void closeEndsTheSessionAtOnceAndLaterCallsFailClientClosed() throws Exception {
    CorralClient observer = another(null);
    client.create("/eph", NONE, CreateMode.EPHEMERAL);

    client.close();
    client.close();

    assertTrue(observer.exists("/eph").isEmpty(), "the ephemeral went with the session");
    assertThrows(ClientClosedException.class, () -> client.exists("/"));
    assertFalse(client.blockUntilConnected(1, TimeUnit.MILLISECONDS));
  }

  @Test
  void closeLeavesNoThreadOfTheClientBehind() throws Exception {
    CorralClient extra = another(null);
    extra.create("/threads", NONE, CreateMode.PERSISTENT);
    extra.close();
    client.close();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertEquals(List.of(),
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.isAlive() && (t.getName().startsWith("corral-session") || t.getName().startsWith("corral-events")))
            .map(Thread::getName).toList()));
  }

  @Test
  void getEphemeralsListsThisSessionsEphemeralNodesByStringPrefixAsZooKeeper() throws Exception {
    client.create("/e", NONE, CreateMode.PERSISTENT);
    client.create("/e/a", NONE, CreateMode.EPHEMERAL);
    client.create("/e/ab", NONE, CreateMode.EPHEMERAL);
    client.create("/e/b", NONE, CreateMode.PERSISTENT);
    client.create("/e/b/c-", NONE, CreateMode.EPHEMERAL_SEQUENTIAL);
    client.create("/f", NONE, CreateMode.EPHEMERAL);
    CorralClient other = another(null);
    other.create("/e/theirs", NONE, CreateMode.EPHEMERAL);

    assertEquals(List.of("/e/a", "/e/ab", "/e/b/c-0000000000", "/f"), client.getEphemerals());
    assertEquals(List.of("/e/a", "/e/ab"), client.getEphemerals("/e/a"));
    assertEquals(List.of("/e/b/c-0000000000"), client.getEphemerals("/e/b"));
    assertEquals(List.of(), client.getEphemerals("/nothing"));
    assertEquals(List.of("/e/theirs"), other.getEphemerals("/"));
    client.delete("/e/ab");
    assertEquals(List.of("/e/a"), client.getEphemerals("/e/a"));
    assertThrows(InvalidPathException.class, () -> client.getEphemerals("/e/"));
  }

  @Test
  void getEphemeralsInANamespaceAnswersPathsInTheNamespace() throws Exception {
    CorralClient app = another("app");
    app.create("/x", NONE, CreateMode.EPHEMERAL);
    CorralClient outside = another(null);
    outside.create("/appx", NONE, CreateMode.EPHEMERAL);

    assertEquals(List.of("/x"), app.getEphemerals());
    assertEquals(List.of("/x"), app.getEphemerals("/x"));
    assertEquals(List.of("/appx"), outside.getEphemerals("/app"));
  }

  @Test
  void getAllChildrenNumberCountsEveryNodeBelowAsZooKeeper() throws Exception {
    client.create("/t", NONE, CreateMode.PERSISTENT);
    client.create("/t/a", NONE, CreateMode.PERSISTENT);
    client.create("/t/a/1", NONE, CreateMode.PERSISTENT);
    client.create("/t/a/1/x", NONE, CreateMode.EPHEMERAL);
    client.create("/t/b", NONE, CreateMode.PERSISTENT);
    client.create("/tt", NONE, CreateMode.PERSISTENT);

    assertEquals(4, client.getAllChildrenNumber("/t"));
    assertEquals(2, client.getAllChildrenNumber("/t/a"));
    assertEquals(0, client.getAllChildrenNumber("/t/b"));
    assertEquals(6, client.getAllChildrenNumber("/"));
    assertEquals(4, another("t").getAllChildrenNumber("/"));
    NoNodeException missing = assertThrows(NoNodeException.class, () -> client.getAllChildrenNumber("/none"));
    assertEquals("/none", missing.path());
    assertThrows(InvalidPathException.class, () -> client.getAllChildrenNumber("t"));
  }
}
