package dev.corral.client;

/**
 * What a create made.
 *
 * @param path the actual path, with the sequential suffix if any
 * @param stat the new node's Stat; {@code stat.czxid()} is a fencing token for the node
 */
public record Created(String path, Stat stat) {}
