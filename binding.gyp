{
  "targets": [
    {
      "target_name": "subreaper",
      "sources": ["native/subreaper.c"],
      "cflags": ["-O2", "-Wall"]
    }
  ]
}
