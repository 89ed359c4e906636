package dev.corral.server;

import java.util.Objects;

/**
 * One server of an ensemble as the config file lists it: its id (stable; the
 * Raft log names it), the address clients connect to and the address its
 * peers replicate to. Written in a config file as
 * {@code server.<id>=<host>:<clientPort>:<peerPort>}.
 */
public record EnsembleMember(String id, String host, int clientPort, int peerPort) {
  public EnsembleMember {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(host, "host");
    if (!id.matches("[A-Za-z0-9_.-]{1,64}")) {
      throw new IllegalArgumentException("server id must be 1-64 of [A-Za-z0-9_.-], was '" + id + "'");
    }
    if (host.isBlank()) {
      throw new IllegalArgumentException("server." + id + " has a blank host");
    }
    checkPort(id, "client", clientPort);
    checkPort(id, "peer", peerPort);
    if (clientPort == peerPort) {
      throw new IllegalArgumentException("server." + id + " uses port " + clientPort + " for both clients and peers");
    }
  }

  /** Parses {@code host:clientPort:peerPort} (an IPv6 host in brackets). */
  public static EnsembleMember parse(String id, String value) {
    String v = value.trim();
    int peerColon = v.lastIndexOf(':');
    int clientColon = peerColon <= 0 ? -1 : v.lastIndexOf(':', peerColon - 1);
    if (clientColon <= 0) {
      throw new IllegalArgumentException(
          "server." + id + " must be host:clientPort:peerPort (e.g. 127.0.0.1:7181:7281), was '" + value + "'");
    }
    String host = v.substring(0, clientColon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return new EnsembleMember(id, host, port(id, v.substring(clientColon + 1, peerColon)),
        port(id, v.substring(peerColon + 1)));
  }

  /** {@code host:clientPort}, as clients list it in a connect string. */
  public String clientAddress() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + clientPort;
  }

  private static int port(String id, String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("server." + id + " has a port that is not a number: '" + text + "'");
    }
  }

  private static void checkPort(String id, String which, int port) {
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException("server." + id + " has " + which + " port " + port + " outside [1, 65535]");
    }
  }
}
