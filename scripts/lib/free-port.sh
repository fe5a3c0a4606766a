# shellcheck shell=bash
# Sourced: free_port prints a TCP port on 127.0.0.1 that nothing listens on just now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
