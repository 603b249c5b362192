// Transports for Node.js (connect-node): Connect or gRPC-Web on the referee's HTTP port
// (HTTP/1.1 or HTTP/2: the port serves both, h2c included), gRPC on its gRPC port.
import type { Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";

export type Wire = "connect" | "connect-json" | "grpc-web" | "grpc";

/** A transport to ``baseUrl`` ("http://127.0.0.1:8080" for the HTTP port, the gRPC port's
 * "http://127.0.0.1:50051" for "grpc"). HTTP/2 unless ``httpVersion`` says "1.1" (gRPC is
 * HTTP/2 only). */
export function nodeTransport(baseUrl: string, wire: Wire = "connect", httpVersion: "1.1" | "2" = "2"): Transport {
  if (wire === "grpc") return createGrpcTransport({ baseUrl });
  if (wire === "grpc-web") return createGrpcWebTransport({ baseUrl, httpVersion });
  return createConnectTransport({ baseUrl, httpVersion, useBinaryFormat: wire === "connect" });
}
