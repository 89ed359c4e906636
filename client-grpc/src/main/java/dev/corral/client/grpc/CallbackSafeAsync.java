package dev.corral.client.grpc;

import dev.corral.client.AddWatchMode;
import dev.corral.client.AsyncCoordinationClient;
import dev.corral.client.Children;
import dev.corral.client.CreateOptions;
import dev.corral.client.Created;
import dev.corral.client.NodeData;
import dev.corral.client.Op;
import dev.corral.client.OpResult;
import dev.corral.client.Stat;
import dev.corral.client.Watcher;
import dev.corral.client.WatcherType;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The async API as users see it. A call made on the event thread (from a
 * watcher or listener) is answered directly by the receiving thread, so that
 * the event thread may wait for it; its future is then completed on the
 * client's callback thread, so that user code chained on it never runs on the
 * receiving thread (a blocking call there would stop every answer). Calls made
 * elsewhere are completed on the event thread, in order, as before.
 */
final class CallbackSafeAsync implements AsyncCoordinationClient {
  private final AsyncOps ops;
  private final EventQueue events;

  CallbackSafeAsync(AsyncOps ops, EventQueue events) {
    this.ops = ops;
    this.events = events;
  }

  private <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> call) {
    if (!events.inEventThread()) {
      return call.get();
    }
    CompletableFuture<T> answered = call.get();
    CompletableFuture<T> delivered = new CompletableFuture<>();
    answered.whenComplete((value, failure) -> events.executeCallback(() -> {
      if (failure != null) {
        delivered.completeExceptionally(AsyncOps.unwrap(failure));
      } else {
        delivered.complete(value);
      }
    }));
    return delivered;
  }

  @Override
  public CompletableFuture<Created> create(String path, byte[] data, CreateOptions options) {
    return call(() -> ops.create(path, data, options));
  }

  @Override
  public CompletableFuture<Void> delete(String path, int version) {
    return call(() -> ops.delete(path, version));
  }

  @Override
  public CompletableFuture<Optional<Stat>> exists(String path) {
    return call(() -> ops.exists(path));
  }

  @Override
  public CompletableFuture<Optional<Stat>> exists(String path, Watcher watcher) {
    return call(() -> ops.exists(path, watcher));
  }

  @Override
  public CompletableFuture<List<String>> getEphemerals(String prefixPath) {
    return call(() -> ops.getEphemerals(prefixPath));
  }

  @Override
  public CompletableFuture<Integer> getAllChildrenNumber(String path) {
    return call(() -> ops.getAllChildrenNumber(path));
  }

  @Override
  public CompletableFuture<Void> removeAllWatches(String path, WatcherType type, boolean local) {
    return call(() -> ops.removeAllWatches(path, type, local));
  }

  @Override
  public CompletableFuture<NodeData> getData(String path) {
    return call(() -> ops.getData(path));
  }

  @Override
  public CompletableFuture<NodeData> getData(String path, Watcher watcher) {
    return call(() -> ops.getData(path, watcher));
  }

  @Override
  public CompletableFuture<Stat> setData(String path, byte[] data, int version) {
    return call(() -> ops.setData(path, data, version));
  }

  @Override
  public CompletableFuture<Children> getChildren(String path) {
    return call(() -> ops.getChildren(path));
  }

  @Override
  public CompletableFuture<Children> getChildren(String path, Watcher watcher) {
    return call(() -> ops.getChildren(path, watcher));
  }

  @Override
  public CompletableFuture<List<OpResult>> multi(List<Op> ops) {
    return call(() -> this.ops.multi(ops));
  }

  @Override
  public CompletableFuture<Void> sync(String path) {
    return call(() -> ops.sync(path));
  }

  @Override
  public CompletableFuture<Void> addWatch(String path, AddWatchMode mode, Watcher watcher) {
    return call(() -> ops.addWatch(path, mode, watcher));
  }

  @Override
  public CompletableFuture<Void> removeWatches(String path, Watcher watcher, WatcherType type, boolean local) {
    return call(() -> ops.removeWatches(path, watcher, type, local));
  }
}
