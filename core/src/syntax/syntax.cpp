// placeholder: implemented by the syntax work
