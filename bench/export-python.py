import csv, json, sys, urllib.request  # bench/export-vs-python.mjs's baseline: offset pages of 1000, one after another, stdlib only
url, token, fields = sys.argv[1] + '/api/v1/accounts', sys.argv[2], ['ID', 'lastname', 'type', 'currency']
with open(sys.argv[3], 'w', newline='') as out:
    writer = csv.writer(out, lineterminator='\n')
    writer.writerow(fields)
    for offset in range(0, 10**12, 1000):
        body = json.dumps({'fields': fields, 'sort': ['+ID'], 'limit': 1000, 'offset': offset}).encode()
        rows = json.load(urllib.request.urlopen(urllib.request.Request(url, body, {'Authorization': 'Bearer ' + token, 'Content-Type': 'application/json'})))
        writer.writerows([row.get(f) for f in fields] for row in rows)
        if len(rows) < 1000: break
