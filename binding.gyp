{
  "targets": [
    {
      "target_name": "subreaper",
      "sources": ["subreaper/subreaper.c"],
      "cflags": ["-O2", "-Wall"]
    }
  ]
}
