# PostgreSQL, Redis and PgBouncer from Debian's packages, standing in for the official
# postgres, redis and pgbouncer images where Docker Hub is out of reach. The entrypoint does
# what compose.yaml relies on from the official postgres image: POSTGRES_USER, POSTGRES_PASSWORD
# and POSTGRES_DB make the cluster on the first start, in PGDATA; any other command runs as given.
ARG BASE
FROM ${BASE}
RUN printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d \
 && mkdir -p /etc/postgresql-common \
 && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.conf \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 redis-server pgbouncer \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
CMD ["postgres"]
