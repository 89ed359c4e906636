package dev.corral.client;

/**
 * A watch fired.
 *
 * @param type what happened
 * @param path the node it happened to
 * @param zxid the zxid of the change; -1 for an event that no change caused
 *     (a *_WATCH_REMOVED one, see {@link EventType#DATA_WATCH_REMOVED})
 */
public record WatchedEvent(EventType type, String path, long zxid) {
  /** The zxid of an event that no change caused. */
  public static final long NO_ZXID = -1;
}
