package dev.corral.client;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The async form of {@link CoordinationClient}'s operations: same semantics,
 * answers as futures completed in request order. Failures complete the future
 * exceptionally with a {@link CoordinationException}. Calls are pipelined: many
 * may be outstanding at once on the session's one stream.
 */
public interface AsyncCoordinationClient {
  CompletableFuture<Created> create(String path, byte[] data, CreateOptions options);

  CompletableFuture<Void> delete(String path, int version);

  CompletableFuture<Optional<Stat>> exists(String path);

  CompletableFuture<Optional<Stat>> exists(String path, Watcher watcher);

  CompletableFuture<NodeData> getData(String path);

  CompletableFuture<NodeData> getData(String path, Watcher watcher);

  CompletableFuture<Stat> setData(String path, byte[] data, int version);

  CompletableFuture<Children> getChildren(String path);

  CompletableFuture<Children> getChildren(String path, Watcher watcher);

  CompletableFuture<List<String>> getEphemerals(String prefixPath);

  CompletableFuture<Integer> getAllChildrenNumber(String path);

  CompletableFuture<List<OpResult>> multi(List<Op> ops);

  CompletableFuture<Void> sync(String path);

  CompletableFuture<Void> addWatch(String path, AddWatchMode mode, Watcher watcher);

  /** See {@link CoordinationClient#removeWatches(String, Watcher, WatcherType)}. */
  default CompletableFuture<Void> removeWatches(String path, Watcher watcher, WatcherType type) {
    return removeWatches(path, watcher, type, false);
  }

  /** See {@link CoordinationClient#removeWatches(String, Watcher, WatcherType, boolean)}. */
  CompletableFuture<Void> removeWatches(String path, Watcher watcher, WatcherType type, boolean local);

  /** See {@link CoordinationClient#removeAllWatches(String, WatcherType)}. */
  default CompletableFuture<Void> removeAllWatches(String path, WatcherType type) {
    return removeAllWatches(path, type, false);
  }

  /** See {@link CoordinationClient#removeAllWatches(String, WatcherType, boolean)}. */
  CompletableFuture<Void> removeAllWatches(String path, WatcherType type, boolean local);
}
