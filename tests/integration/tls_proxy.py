#!/usr/bin/env python3
"""A TLS front for a plain HTTP server on this host, for the https tests of ironbench serve.

Usage: tls_proxy.py CERT.pem KEY.pem TARGET_PORT
Listens on a free port of 127.0.0.1, prints "port N" once it listens, and relays every TLS
connection's bytes to and from 127.0.0.1:TARGET_PORT until either side closes.
"""
import asyncio
import ssl
import sys


async def relay(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        writer.close()


async def main():
    cert, key, target_port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(relay(client_reader, server_writer), relay(server_reader, client_writer))

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
    print(f"port {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
