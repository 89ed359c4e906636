package dev.corral.client.grpc;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The servers to connect to, shuffled once, taken in turn. */
final class ServerList {
  /** One server of a connect string. */
  record Address(String host, int port) {
    @Override
    public String toString() {
      return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
    }
  }

  private final List<Address> shuffled;
  private int next;

  ServerList(List<Address> servers) {
    shuffled = new ArrayList<>(servers);
    Collections.shuffle(shuffled);
  }

  int size() {
    return shuffled.size();
  }

  /** The next server to try. */
  synchronized Address next() {
    Address address = shuffled.get(next);
    next = (next + 1) % shuffled.size();
    return address;
  }

  /**
   * The servers of {@code connectString} ("h1:7181,h2:7181", IPv6 hosts in brackets).
   *
   * @throws IllegalArgumentException naming the entry that is not host:port
   */
  static List<Address> parse(String connectString) {
    List<Address> servers = new ArrayList<>();
    for (String entry : connectString.split(",")) {
      String server = entry.strip();
      int colon = server.lastIndexOf(':');
      if (server.isEmpty() || colon <= 0 || colon == server.length() - 1) {
        throw new IllegalArgumentException("connect string entry \"" + server + "\" is not host:port");
      }
      String host = server.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port;
      try {
        port = Integer.parseInt(server.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("connect string entry \"" + server + "\" has no numeric port");
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("connect string entry \"" + server + "\" has port out of range");
      }
      servers.add(new Address(host, port));
    }
    return List.copyOf(servers);
  }
}
