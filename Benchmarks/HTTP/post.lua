-- wrk script: POSTs the JSON body in $BODY (default {}) to the path given on the command line.
wrk.method = "POST"
wrk.body = os.getenv("BODY") or "{}"
wrk.headers["Content-Type"] = "application/json"
