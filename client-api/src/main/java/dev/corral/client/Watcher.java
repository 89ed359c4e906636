package dev.corral.client;

/**
 * Told of watch events. One-shot watchers (from exists / getData /
 * getChildren) are told once; persistent ones (from addWatch) until removed.
 * Called on the client's event thread, one event at a time, in the order of the
 * changes: a watcher must not block.
 */
@FunctionalInterface
public interface Watcher {
  void process(WatchedEvent event);
}
