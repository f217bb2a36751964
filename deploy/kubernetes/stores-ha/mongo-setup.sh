#!/bin/sh
# MongoDB's own procedure ("Deploy a self-managed replica set with keyfile authentication"), run as a
# container of the member mongo-0's pod: 127.0.0.1 is that mongod, so the localhost exception lets it
# initiate the set and make the first user before any user exists. mongo-setup.js does the work and
# is safe to run again (once users exist it signs in as the administrator); then this container idles,
# so the pod stays whole. The copies beside the other members idle at once.
set -eu
case "${POD_NAME:?}" in
  *-0) ;;
  *) exec sleep infinity ;;
esac
url='mongodb://127.0.0.1:27017/?directConnection=true'
echo "mongo-setup: waiting for the mongod beside it"
until mongosh --quiet "$url" --eval "db.adminCommand('ping').ok" >/dev/null 2>&1; do sleep 2; done
mongosh --quiet "$url" --file /scripts/mongo-setup.js
echo "mongo-setup: done; idling"
exec sleep infinity
