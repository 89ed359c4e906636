package dev.corral.server.replication;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientRpc;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Test;

/** A forwarding client over a network that never delivers (the only part faked). */
class ForwarderTest {
  private static final long WAIT_SECONDS = 30;

  /**
   * Fails every request, as a leader that cannot be reached would; once
   * closed, refuses to send, as Ratis's gRPC transport does.
   */
  private static final class UnreachableRpc implements RaftClientRpc {
    final AtomicInteger sends = new AtomicInteger();
    final AtomicBoolean closed = new AtomicBoolean();

    @Override
    public CompletableFuture<RaftClientReply> sendRequestAsync(RaftClientRequest request) {
      if (closed.get()) {
        return CompletableFuture.failedFuture(new AlreadyClosedException("the transport is closed"));
      }
      sends.incrementAndGet();
      return CompletableFuture.failedFuture(new IOException("unreachable"));
    }

    @Override
    public RaftClientReply sendRequest(RaftClientRequest request) throws IOException {
      throw new IOException("unreachable");
    }

    @Override
    public void addRaftPeers(Collection<RaftPeer> peers) {}

    @Override
    public void close() {
      closed.set(true);
    }
  }

  @Test
  void whatARetiredForwarderHeldFailsOnlyOnceItsClientIsClosed() throws Exception {
    UnreachableRpc rpc = new UnreachableRpc();
    RaftPeer leader = RaftPeer.newBuilder().setId(RaftPeerId.valueOf("1")).setAddress("127.0.0.1:1").build();
    RaftClient client = RaftClient.newBuilder()
        .setRaftGroup(RaftGroup.valueOf(RaftGroupId.randomId(), List.of(leader)))
        .setProperties(new RaftProperties())
        .setClientRpc(rpc)
        .setRetryPolicy(RetryPolicies.retryForeverWithSleep(TimeDuration.valueOf(10, TimeUnit.MILLISECONDS)))
        .build();
    Forwarder forwarder = new Forwarder(client);

    CompletableFuture<RaftClientReply> sent = forwarder.send(Message.valueOf("entry"));
    AtomicBoolean closedWhenTold = new AtomicBoolean();
    sent.whenComplete((reply, failure) -> closedWhenTold.set(rpc.closed.get()));
    await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(() -> rpc.sends.get() >= 3); // retrying

    forwarder.retire("a test retires it");

    ExecutionException failure = assertThrows(ExecutionException.class, () -> sent.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertTrue(failure.getCause().getMessage().contains("a test retires it"), failure.getCause().toString());
    assertTrue(closedWhenTold.get(), "the caller was told while the client could still send the entry again");
  }
}
