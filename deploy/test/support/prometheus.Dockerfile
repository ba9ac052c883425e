# Prometheus from Debian's package, standing in for the official prom/prometheus image where
# Docker Hub is out of reach, with what compose.yaml relies on from it: the binary as the
# entrypoint (compose gives only the flags), the user nobody, and /prometheus for its data.
ARG BASE
FROM ${BASE}
RUN printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/* \
 && mkdir -p /prometheus && chown nobody:nogroup /prometheus
USER nobody
ENTRYPOINT ["/usr/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]
