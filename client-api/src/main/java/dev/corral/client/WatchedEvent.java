package dev.corral.client;

/**
 * A watch fired.
 *
 * @param type what happened
 * @param path the node it happened to
 * @param zxid the zxid of the change
 */
public record WatchedEvent(EventType type, String path, long zxid) {}
